/**
 * The API model names a platform lists when it refuses a model id,
 * e.g. `"... Supported API model names: primary-flash, primary-v4-pro"` gives
 * `['primary-flash', 'primary-v4-pro']`, as does "The supported API model names
 * are primary-flash or primary-v4-pro, but you passed x.". Tolerates backticks, quotes, `and`/`or`
 * and a closing period; an empty list when the message lists none.
 */
export function supportedModels(message: string): string[] {
  const match = /model names?\s*(?:are|is)?\s*:?\s*([\s\S]*)$/i.exec(message);
  if (!match?.[1]) return [];
  // The list ends at the end of its sentence; a period inside an id (v4.1) is kept.
  // "... are A or B, but you passed C.": the list ends before the "but" clause too.
  const list = (match[1].split(/\.(?:\s|$)/)[0] ?? '').split(/,?\s+but\s/i)[0] ?? '';
  const names: string[] = [];
  for (const word of list.split(/[\s,;]+/)) {
    const name = word.replace(/^[`'"[(]+|[`'"\])]+$/g, '').replace(/[.:]+$/, '');
    if (name === '' || name === 'and' || name === 'or') continue;
    if (!/^[\w][\w.:/@-]*$/.test(name)) continue;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * Whether a 400 reply refuses the model id: by its code, its param, a
 * message listing model names, or the platform's bare "Model Not Exist".
 */
export function isModelRejection(status: number, code: unknown, param: unknown, message: string): boolean {
  if (status !== 400) return false;
  return (
    code === 'model_not_found' ||
    param === 'model' ||
    /supported .*model|model names?\s*:|model not exist/i.test(message)
  );
}
