export default async function globalTeardown(): Promise<void> {
  await globalThis.__IDP_FERRETDB__?.dispose();
}
