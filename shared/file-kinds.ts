/** What a file is, as assistants filter and describe it (from its detected type). */
export const FILE_KINDS = ['image', 'video', 'audio', 'document', 'other'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

export const DOCUMENT_TYPES = ['application/pdf', 'application/rtf', 'application/msword', 'application/json', 'application/epub+zip'];
export const DOCUMENT_PREFIXES = ['text/', 'application/vnd.openxmlformats-officedocument.', 'application/vnd.oasis.opendocument.', 'application/vnd.ms-'];

export function kindOf(mimeType: string): FileKind {
  for (const kind of ['image', 'video', 'audio'] as const) if (mimeType.startsWith(`${kind}/`)) return kind;
  if (DOCUMENT_TYPES.includes(mimeType) || DOCUMENT_PREFIXES.some((prefix) => mimeType.startsWith(prefix))) return 'document';
  return 'other';
}
