export * from './executor.js';
