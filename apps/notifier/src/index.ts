export * from './notifier.js';
