import { render } from 'preact';
import { App } from './app.js';
import { installThemeSwitch } from './theme-switch.js';
import './styles/tokens.css';
import './styles/base.css';
import './styles.css';

installThemeSwitch();
render(<App />, document.getElementById('app')!);
