import { render } from 'preact';
import { Uploader } from './upload/uploader.js';
import './styles.css';

// The public upload page (/): the same drop zone as the dashboard, for visitors and signed-in people.
const mount = document.getElementById('uploader');
if (mount) render(<Uploader folderId={null} />, mount);
