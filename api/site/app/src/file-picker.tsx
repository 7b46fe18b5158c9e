import type { IconNode } from 'lucide';
import { Icon } from '../../views/icon.js';
import './file-picker.css';

/**
 * A file input that looks like a button: the input is only visually hidden, so Tab reaches it,
 * Space or Enter opens the browser's chooser, and its label names it for screen readers.
 */
export function FilePicker({ id, label, icon, multiple = false, primary = false, onFiles }: { id: string; label: string; icon: IconNode; multiple?: boolean; primary?: boolean; onFiles: (files: File[]) => void }) {
  return (
    <span class="file-picker">
      <input
        type="file"
        id={id}
        multiple={multiple}
        onChange={(event) => {
          const input = event.currentTarget;
          const files = [...(input.files ?? [])];
          input.value = '';
          if (files.length) onFiles(files);
        }}
      />
      <label for={id} class={primary ? 'button primary' : 'button'}>
        <Icon icon={icon} />
        {label}
      </label>
    </span>
  );
}
