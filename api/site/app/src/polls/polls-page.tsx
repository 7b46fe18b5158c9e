import { useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { formatDate, plural } from '../format.js';
import type { Poll } from '../types.js';
import { Status, useAction, useLoad } from '../ui.js';

/** Feedback polls: vote once in each open one; the results show once you have voted or it closed. */
export function PollsPage() {
  const { data: polls, error, setData } = useLoad((signal) => api<{ data: { polls: Poll[] } }>('/user/polls', { signal }).then((r) => r.data.polls));
  const replace = (updated: Poll) => setData((current) => current?.map((p) => (p.id === updated.id ? { ...p, ...updated } : p)));
  return (
    <>
      <h1>Polls</h1>
      <p class="muted">Tell us what to build next. One vote per poll; you see the results once you have voted.</p>
      {error && <Status error={error} />}
      {!polls && !error && <p class="muted">Loading…</p>}
      {polls?.length === 0 && <p>There are no polls right now.</p>}
      {polls?.map((poll) => <PollCard key={poll.id} poll={poll} onVoted={replace} />)}
    </>
  );
}

function PollCard({ poll, onVoted }: { poll: Poll; onVoted: (poll: Poll) => void }) {
  const [choice, setChoice] = useState<string | undefined>(undefined);
  const action = useAction<'vote'>();
  const results = useRef<HTMLHeadingElement>(null);
  const headingId = `poll-${poll.id}`;
  const open = poll.status === 'active';

  const vote = async (event: Event) => {
    event.preventDefault();
    if (!choice) return action.setError('Choose an answer first.');
    await action.run('vote', async () => {
      const { poll: updated } = await api<{ poll: Poll }>('/user/polls/vote', { method: 'POST', body: { pollId: poll.id, optionId: choice } });
      onVoted(updated);
      // The form goes away: keep the keyboard where the results are.
      requestAnimationFrame(() => results.current?.focus());
      return 'Thank you: your vote is counted.';
    });
  };

  return (
    <section class="card poll" aria-labelledby={headingId}>
      <h2 id={headingId}>{poll.question}</h2>
      {poll.description && <p>{poll.description}</p>}
      <p class="muted">
        {open ? 'Open' : `Closed${poll.closedAt ? ` ${formatDate(poll.closedAt)}` : ''}`} · {plural(poll.totalVotes, 'vote')}
      </p>
      {open && !poll.userVote ? (
        <form onSubmit={(e) => void vote(e)}>
          <fieldset class="poll-options">
            <legend class="sr-only">{poll.question}</legend>
            {poll.options.map((option) => (
              <label key={option.id} class="poll-option">
                <input type="radio" name={`vote-${poll.id}`} value={option.id} checked={choice === option.id} onChange={() => setChoice(option.id)} />
                {option.text}
              </label>
            ))}
          </fieldset>
          <button type="submit" class="primary" disabled={action.busy !== undefined}>
            {action.busy ? 'Voting…' : 'Vote'}
          </button>
        </form>
      ) : (
        <PollResults poll={poll} headingRef={results} />
      )}
      <Status error={action.error} />
    </section>
  );
}

/** Each answer's votes as a bar, with the count and percentage in words too. */
function PollResults({ poll, headingRef }: { poll: Poll; headingRef: { current: HTMLHeadingElement | null } }) {
  const total = poll.totalVotes;
  return (
    <>
      <h3 class="poll-results-title" tabIndex={-1} ref={headingRef}>
        Results
      </h3>
      <ul class="poll-results">
        {poll.options.map((option) => {
          const percent = total > 0 ? Math.round((option.voteCount / total) * 100) : 0;
          const mine = poll.userVote === option.id;
          return (
            <li key={option.id} class={mine ? 'mine' : undefined}>
              <div class="poll-result-label">
                <span>
                  {option.text}
                  {mine && <strong class="poll-mine"> (your vote)</strong>}
                </span>
                <span>
                  {plural(option.voteCount, 'vote')} · {percent}%
                </span>
              </div>
              <div class="bar" aria-hidden="true">
                <span style={{ width: `${percent}%` }} />
              </div>
            </li>
          );
        })}
      </ul>
    </>
  );
}
