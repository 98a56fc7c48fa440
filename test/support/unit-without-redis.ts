/**
 * Set up before each unit test file: TEST_REDIS_URL names a host that can never resolve (RFC 6761's
 * .invalid), so a unit test that reaches for Redis fails, saying where it belongs, instead of
 * finding the shared Redis of a whole run, or one on the developer's default port.
 */
const UNIT_REDIS_URL = 'redis://unit-tests-have-no-redis--move-this-test-to-component.invalid:6379';

process.env.TEST_REDIS_URL = UNIT_REDIS_URL;
