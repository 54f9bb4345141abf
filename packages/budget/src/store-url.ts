/**
 * A store's connection url checked: parsed, and its scheme one of `protocols`. The messages
 * name the url only by scheme and host, never its text (it may hold a password).
 * @param notAUrl the message when the text is not a URL
 * @param wrongScheme the start of the message when the scheme is another (the scheme and host follow)
 */
export function checkedStoreUrl(
  text: string,
  protocols: readonly string[],
  notAUrl: string,
  wrongScheme: string,
): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(notAUrl);
  }
  if (!protocols.includes(url.protocol)) {
    throw new TypeError(`${wrongScheme}, got ${url.protocol}// at ${url.host}`);
  }
  return url;
}
