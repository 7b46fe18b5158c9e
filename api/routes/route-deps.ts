import type { Container } from '../../shared/container.js';

/**
 * What route modules are given: the services and the settings they answer with. Repositories and
 * engines are left out on purpose: a route reaches data only through a service, so every rule
 * (ownership above all) is the service's and cannot be skipped by a handler.
 */
export type RouteDeps = Pick<Container, 'services' | 'config' | 'plans' | 'urls' | 'rateLimits'>;
