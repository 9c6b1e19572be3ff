// Jest setup of the "queues on postgres" project (jest.config.ts): every test context of the
// file runs its queues on BullMQ's PostgreSQL backend.
process.env.TEST_QUEUE_BACKEND = 'postgres';
