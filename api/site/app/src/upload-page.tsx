import { render } from 'preact';
import { installThemeSwitch } from './theme-switch.js';
import { Uploader } from './upload/uploader.js';
import './styles/tokens.css';
import './styles/base.css';
import './styles/public.css';

// The public upload page (/): the same drop zone as the dashboard, for visitors and signed-in people.
// A visitor's files are checked against the anonymous ceiling before sending; an account's by the server.
installThemeSwitch();
const mount = document.getElementById('uploader');
if (mount) {
  mount.replaceChildren();
  render(<Uploader folderId={null} plan={mount.dataset.signedIn === 'true' ? undefined : null} />, mount);
}
