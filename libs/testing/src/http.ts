/** RFC 6749 section 2.3.1 HTTP Basic client authentication (form-encoded id and secret). */
export function basicAuth(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
}
