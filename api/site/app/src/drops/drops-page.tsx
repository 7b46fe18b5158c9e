/** Drop links (being built). */
export function DropsPage() {
  return <h1>Drop links</h1>;
}
