// The explorer's figures as a player reads them: what share of a
// position's games chose each move, and how the games of that move ended.

/** A move's share of the `positionGames` that left the position, and
 * White's wins, draws and Black's wins among the move's own games, each in
 * whole percents (0 when there are no games to share). */
export function explorerShares(move, positionGames) {
  const of = (n, total) => (total ? Math.round((100 * n) / total) : 0);
  return {
    share: of(move.games, positionGames),
    white: of(move.white, move.games),
    draws: of(move.draws, move.games),
    black: of(move.black, move.games),
  };
}
