/** Response bodies of the benchmark's receivers. */

/** What a 2xx receiver answers. */
export const OK_BODY = '{"received":true}';

/** What a receiver behind nginx answers when its upstream is down (nginx's own 503 page). */
export const ERROR_PAGE =
  '<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n' +
  '<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n' +
  '</body>\r\n</html>\r\n';
