// Each side's clock as a player sees it by the names: the side to move's
// counting down to its deadline, standing still while that player is on
// vacation (the server moves the deadline on as the vacation lasts) unless
// the game's tournament allows no vacation, the
// other's showing the time it will have. Figures come from the server's
// game view; the page only counts the seconds since it read it.

/** Each side's clock `elapsed` seconds after `game` was read: its seconds
 * left, whether it runs, whether its player is on vacation, and whether
 * little is left (under a tenth of the time for a move, or an hour). None
 * for a game not under way. */
export function sideClocks(game, elapsed) {
  if (game.status !== "started") return null;
  const allowance = game.days_per_move ? game.days_per_move * 86400 : null;
  const clockOf = (side) => {
    const vacation = Boolean(game[side].on_vacation) && game.vacation_allowed !== false;
    if (side === game.turn) {
      const read = game.time_left_seconds ?? 0;
      const seconds = vacation ? read : Math.max(0, read - elapsed);
      const urgent = seconds < Math.max(3600, (allowance ?? 0) / 10);
      return { seconds, running: !vacation, vacation, urgent };
    }
    const banked = game.clock?.[`${side}_seconds`];
    return { seconds: banked ?? allowance ?? 0, running: false, vacation, urgent: false };
  };
  return { white: clockOf("white"), black: clockOf("black") };
}

/** A clock's figure, to the second so that a running one is seen to run:
 * "23:59:58", and from a day on "3 d 04:00:00". */
export function clockText(seconds) {
  const s = Math.floor(seconds);
  const two = (n) => String(n).padStart(2, "0");
  const time = `${two(Math.floor((s % 86400) / 3600))}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return s >= 86400 ? `${Math.floor(s / 86400)} d ${time}` : time;
}
