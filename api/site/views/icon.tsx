import type { IconNode } from 'lucide';

/**
 * An icon from Lucide (imported one by one, so bundles keep only those used). Decorative by default,
 * as it sits beside words; `label` names it when it stands alone.
 */
export function Icon({ icon, label, size = 18 }: { icon: IconNode; label?: string; size?: number }) {
  return (
    <svg
      class="icon"
      xmlns="http://www.w3.org/2000/svg"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
      focusable="false"
      {...(label ? { role: 'img', 'aria-label': label } : { 'aria-hidden': 'true' })}
    >
      {icon.map(([tag, attrs], i) => {
        const Tag = tag as 'path';
        return <Tag key={i} {...(attrs as Record<string, string>)} />;
      })}
    </svg>
  );
}
