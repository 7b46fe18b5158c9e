import { enhanceAlbumGrids } from './public/album-lightbox.js';
import { enhanceAuthForms } from './public/auth-form.js';
import { enhanceDropForm } from './public/drop-form.js';
import { installThemeSwitch } from './theme-switch.js';
import './styles/tokens.css';
import './styles/base.css';
import './styles/public.css';

// The script of the server-rendered pages (SitePages): each works without it; this adds what needs
// script: switching the theme in place, the sign-in forms' captcha, the drop page's drag-and-drop
// and progress, and the album pages' lightbox.
installThemeSwitch();
enhanceAuthForms();
enhanceDropForm();
enhanceAlbumGrids();
