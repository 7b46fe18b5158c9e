/** The drop zone (being built). */
export function Uploader(_props: { folderId: string | null }) {
  return <p>Uploads</p>;
}
