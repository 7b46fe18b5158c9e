import { enhanceAuthForms } from './public/auth-form.js';
import { installThemeSwitch } from './theme-switch.js';
import './styles/tokens.css';
import './styles/base.css';
import './styles/public.css';

// The script of the server-rendered pages (SitePages): each works without it; this adds what needs
// script: switching the theme in place, and the sign-in forms' captcha.
installThemeSwitch();
enhanceAuthForms();
