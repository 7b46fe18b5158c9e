// The files in a drop or a paste, and a name for pasted screenshots (browsers call them all image.png).

export function filesOf(data: DataTransfer | null | undefined): File[] {
  if (!data) return [];
  if (data.files.length) return [...data.files];
  return [...data.items].filter((item) => item.kind === 'file').flatMap((item) => item.getAsFile() ?? []);
}

export function namedForPaste(file: File): File {
  if (!/^image\.\w+$/.test(file.name)) return file;
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
  return new File([file], `pasted-${stamp}${file.name.slice(5)}`, { type: file.type, lastModified: file.lastModified });
}
