import { Link2, Lock, ShieldCheck, Zap } from 'lucide';
import { Icon } from './icon.js';
import { Page, type PageFrame } from './page.js';

const POINTS = [
  { icon: Zap, title: 'A link in seconds', text: 'Drop files, get hosted links: plain, short or on your own domain.' },
  { icon: Lock, title: 'Private when you want', text: 'Location and camera details are removed from photos on the way in.' },
  { icon: Link2, title: 'Share on your terms', text: 'Links that expire, count their views or ask for a password.' },
  { icon: ShieldCheck, title: 'Checked for you', text: 'Every upload is screened before it is shown to the world.' },
];

/** The public home page: a large drop zone (the uploader mounts into it), then what the service does. */
export function HomePage({ frame }: { frame: PageFrame }) {
  const account = frame.account;
  return (
    <Page frame={frame} wide>
      <section class="hero" aria-labelledby="home-title">
        <h1 id="home-title">Share files with a link.</h1>
        <p class="hero-lead">
          {account ? (
            <>
              Signed in as <strong>{account.username}</strong>: what you drop here goes to your library. <a href="/dashboard">Open your files</a>
            </>
          ) : (
            <>No account needed to try it. <a href="/register">Create an account</a> to keep your files together, in folders, with links you control.</>
          )}
        </p>
      </section>
      <div id="uploader" class="home-uploader" data-signed-in={account ? 'true' : 'false'}>
        <noscript>
          <p class="notice">Uploading from this page needs JavaScript. Tools such as ShareX and curl work without it.</p>
        </noscript>
      </div>
      {!account && (
        <ul class="points" aria-label="What you get">
          {POINTS.map((point) => (
            <li key={point.title} class="point">
              <span class="point-icon">
                <Icon icon={point.icon} size={22} />
              </span>
              <h2>{point.title}</h2>
              <p class="muted">{point.text}</p>
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}
