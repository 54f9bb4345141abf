/** Whether `text` is an absolute `http:` or `https:` URL with a host. */
export function isAbsoluteHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
  } catch {
    return false;
  }
}

/** Whether `text` is a URL carrying credentials (`user:password@`), which must never be echoed. */
export function hasCredentials(text: string): boolean {
  try {
    const url = new URL(text);
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
}

/** Whether an absolute URL's path ends with a version segment such as `/v1` (a trailing `/` ignored). */
export function endsWithVersionPath(text: string): boolean {
  return /\/v\d+$/i.test(new URL(text).pathname.replace(/\/+$/, ''));
}

/** `baseUrl` without its trailing `/` characters (spec "Resolution rules" 8). */
export function withoutTrailingSlashes(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}
