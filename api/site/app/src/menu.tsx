import type { IconNode } from 'lucide';
import { Ellipsis } from 'lucide';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Icon } from '../../views/icon.js';
import './menu.css';

export interface MenuItem {
  label: string;
  icon?: IconNode;
  danger?: boolean;
  onSelect: () => void;
}

/**
 * A "⋯" button with a menu of actions (the WAI-ARIA menu button): Enter, Space or ↓ open it on
 * the first item, ↑ on the last; arrows, Home and End move; Escape or Tab close it; choosing an
 * item gives the keyboard back to the button first, so a dialog it opens returns there too.
 */
export function MenuButton({ label, items }: { label: string; items: MenuItem[] }) {
  const [open, setOpen] = useState(false);
  const [start, setStart] = useState<'first' | 'last'>('first');
  // Fixed to the window under the button, so a scrolling row (the folders on a phone) cannot clip it.
  const [place, setPlace] = useState<{ top: number; right: number } | undefined>(undefined);
  const id = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);

  const itemsOf = () => [...(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])];
  // At once on opening (a layout effect), so a key pressed right after lands on the item.
  useLayoutEffect(() => {
    if (!open) return;
    const all = itemsOf();
    (start === 'first' ? all[0] : all.at(-1))?.focus();
  }, [open, start]);
  useEffect(() => {
    if (!open) return;
    const outside = (event: PointerEvent) => !root.current?.contains(event.target as Node) && setOpen(false);
    // The menu stays where the button was: moving the page closes it.
    const away = (event: Event) => !menu.current?.contains(event.target as Node) && setOpen(false);
    document.addEventListener('pointerdown', outside);
    addEventListener('scroll', away, true);
    addEventListener('resize', away);
    return () => {
      document.removeEventListener('pointerdown', outside);
      removeEventListener('scroll', away, true);
      removeEventListener('resize', away);
    };
  }, [open, start]);

  const openAt = (where: 'first' | 'last') => {
    const box = button.current!.getBoundingClientRect();
    setPlace({ top: box.bottom + 4, right: Math.max(8, innerWidth - box.right) });
    setStart(where);
    setOpen(true);
  };
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };

  const onButtonKey = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      openAt(event.key === 'ArrowDown' ? 'first' : 'last');
    }
  };
  const onMenuKey = (event: KeyboardEvent) => {
    const all = itemsOf();
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    const to = { ArrowDown: (at + 1) % all.length, ArrowUp: (at - 1 + all.length) % all.length, Home: 0, End: all.length - 1 }[event.key];
    if (to !== undefined) {
      event.preventDefault();
      all[to]?.focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === 'Tab') setOpen(false);
  };

  return (
    <div class="menu" ref={root}>
      <button
        ref={button}
        type="button"
        class="ghost small icon-only menu-button"
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => (open ? setOpen(false) : openAt('first'))}
        onKeyDown={onButtonKey}
      >
        <Icon icon={Ellipsis} />
      </button>
      {open && (
        <ul id={id} ref={menu} class="menu-list" role="menu" aria-label={label} style={place && { top: `${place.top}px`, right: `${place.right}px` }} onKeyDown={onMenuKey}>
          {items.map((item) => (
            <li key={item.label} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                class={item.danger ? 'menu-item danger' : 'menu-item'}
                onClick={() => {
                  close();
                  item.onSelect();
                }}
              >
                {item.icon && <Icon icon={item.icon} size={16} />}
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
