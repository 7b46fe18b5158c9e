/** One file's page (being built). */
export function FilePage({ filename }: { filename: string }) {
  return <h1>{filename}</h1>;
}
