/** Removes a bot token from text: the token part of Bot API URLs and any bare copy of it become three stars. */
export function redactToken(text: string, token?: string): string {
  let redacted = text.replace(/\/bot[^/\s]+\//g, "/bot***/");
  if (token) redacted = redacted.split(token).join("***");
  // A token's secret half can surface on its own (after the colon) in some client errors.
  const secret = token?.split(":")[1];
  if (secret && secret.length >= 8) redacted = redacted.split(secret).join("***");
  return redacted;
}
