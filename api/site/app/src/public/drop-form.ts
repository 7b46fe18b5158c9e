import { formatBytes } from '../../../views/format-bytes.js';

/**
 * The drop page's form (DropPage), made nicer with script: a file dropped on the zone fills the
 * input, and the form is sent with XMLHttpRequest for its upload progress. Without script the same
 * form posts and the server answers a result page.
 */
export function enhanceDropForm(): void {
  const form = document.querySelector<HTMLFormElement>('#drop-form');
  const zone = document.querySelector<HTMLElement>('#drop-zone');
  const input = document.querySelector<HTMLInputElement>('#drop-file');
  const progress = document.querySelector<HTMLProgressElement>('#drop-progress');
  const status = document.querySelector<HTMLElement>('#drop-status');
  const result = document.querySelector<HTMLElement>('#drop-result');
  const send = form?.querySelector<HTMLButtonElement>('button[type=submit]');
  if (!form || !zone || !input || !progress || !status || !result || !send) return;

  const say = (text: string, error = false) => {
    status.textContent = text;
    status.classList.toggle('error', error);
  };
  const chosen = () => {
    const file = input.files?.[0];
    say(file ? `Ready to send: ${file.name} (${formatBytes(file.size)})` : '');
  };

  for (const type of ['dragenter', 'dragover']) {
    zone.addEventListener(type, (event) => {
      event.preventDefault();
      zone.classList.add('dragging');
    });
  }
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('dragging');
    const files = event.dataTransfer?.files;
    if (!files || files.length === 0) return;
    if (files.length > 1) return say('Drop one file only.', true);
    input.files = files;
    chosen();
  });
  input.addEventListener('change', chosen);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (input.files?.length !== 1) return say('Choose a file first.', true);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.responseType = 'json';
    progress.hidden = false;
    progress.value = 0;
    send.disabled = true;
    xhr.upload.addEventListener('progress', (e) => {
      if (!e.lengthComputable) return;
      progress.value = Math.round((e.loaded / e.total) * 100);
      say(`Sending… ${progress.value}%`);
    });
    const failed = (text: string) => {
      send.disabled = false;
      progress.hidden = true;
      say(text, true);
    };
    xhr.addEventListener('load', () => {
      const body = (xhr.response ?? {}) as { success?: boolean; error?: string; data?: { originalName: string; username: string } };
      if (xhr.status !== 200 || !body.success || !body.data) return failed(body.error ?? `Sending failed (${xhr.status})`);
      progress.value = 100;
      say('');
      form.hidden = true;
      result.hidden = false;
      result.textContent = `File sent: ${body.data.originalName} was delivered to ${body.data.username}. You can close this page.`;
      // The Send button that had the focus is gone with the form: the answer takes it.
      result.tabIndex = -1;
      result.focus();
    });
    xhr.addEventListener('error', () => failed('The connection failed; nothing was sent. Try again.'));
    xhr.send(new FormData(form));
  });
}
