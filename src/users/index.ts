export type { UserRepository } from './repository.js';
