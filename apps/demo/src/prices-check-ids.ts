/**
 * How the gateway's listing names our models: `<vendor>/<id>` is our `<id>` — everything
 * after the first `/`, compared with our ids exactly (no trimming, no case folding, no
 * prefix or suffix match): `primary/primary-flash` is `primary-flash`, while
 * `primary/primary-flash-2`, `primary/PRIMARY-FLASH` and `primary/primary-flash:free` are
 * models of their own. An id without a `/` is itself.
 */
export function ourIdOf(listedId: string): string {
  const slash = listedId.indexOf('/');
  return slash === -1 ? listedId : listedId.slice(slash + 1);
}

/**
 * The listed ids by our id: several listed ids for one of ours (`primary/x` and `other/x`)
 * are kept together, so the check can name the ambiguity instead of picking one.
 */
export function listedIdsByOurs(listedIds: readonly string[]): Map<string, string[]> {
  const byOurs = new Map<string, string[]>();
  for (const listed of listedIds) {
    const ours = ourIdOf(listed);
    byOurs.set(ours, [...(byOurs.get(ours) ?? []), listed]);
  }
  return byOurs;
}
