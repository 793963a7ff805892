/** The Headers field of the connection form: a JSON object of string values. */

/** The JSON object of the Headers field, or the reason it is not one. */
export function parseHeaders(
  text: string,
  options: { allowKeep?: boolean } = {},
): { headers: Record<string, string | null> } | { error: string } {
  if (text.trim() === '') return { headers: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `Headers is not valid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { error: 'Headers must be a JSON object, like {"X-Team": "crm"}' };
  for (const [name, v] of Object.entries(value)) {
    if (v === null && options.allowKeep) continue;
    if (typeof v !== 'string')
      return {
        error: options.allowKeep
          ? `Header "${name}" must have a string value, or null to keep its stored value`
          : `Header "${name}" must have a string value`,
      };
  }
  return { headers: value as Record<string, string | null> };
}
