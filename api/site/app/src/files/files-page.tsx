/** The file grid (being built). */
export function FilesPage() {
  return <h1>Files</h1>;
}
