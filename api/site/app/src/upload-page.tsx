import { render } from 'preact';
import { Uploader } from './upload/uploader.js';
import './styles.css';

// The public upload page (/): the same drop zone as the dashboard, for visitors and signed-in people.
// A visitor's files are checked against the anonymous ceiling before sending; an account's by the server.
const mount = document.getElementById('uploader');
if (mount) render(<Uploader folderId={null} plan={mount.dataset.signedIn === 'true' ? undefined : null} />, mount);
