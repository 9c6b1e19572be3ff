// What other packages may use of history/; the other modules here are internal to @cronsvc/core.
export { badgeByToken, badgeSvg, badgeTokenKnown, rotateJobBadge, rotateMonitorBadge, shieldsEndpoint } from './badges.js';
