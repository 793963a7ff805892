/** Identity of local mode's emulated AWS account. */

/** Region of local mode unless told otherwise. */
export const LOCAL_REGION = 'us-east-1';

/** Account id in local ARNs (fauxqs uses the same one). */
export const LOCAL_ACCOUNT_ID = '000000000000';

/** Dummy credentials: the emulators accept any and check none. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
