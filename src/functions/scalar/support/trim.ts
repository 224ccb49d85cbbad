/** Trim any of a set of characters (code points) from one or both ends. */
export function trimChars(s: string, set: string, leading: boolean, trailing: boolean): string {
  if (set === '' || s === '') return s;
  const cs = new Set(Array.from(set));
  const a = Array.from(s);
  let i = 0;
  let j = a.length;
  if (leading) while (i < j && cs.has(a[i]!)) i++;
  if (trailing) while (j > i && cs.has(a[j - 1]!)) j--;
  return a.slice(i, j).join('');
}
