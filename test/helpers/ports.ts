export { freePort } from '../../scripts/lib/ports.js';
