/** Polls (being built). */
export function PollsPage() {
  return <h1>Polls</h1>;
}
