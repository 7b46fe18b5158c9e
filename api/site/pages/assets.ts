// The site's icon, served at /assets/favicon.svg (every page links it).

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f4fc2"/><path d="M9 21l5-6 4 4 3-3 4 5z" fill="#fff"/><circle cx="12" cy="11" r="2.5" fill="#fff"/></svg>`;
