//! When each move of a game was played, packed beside its moves
//! (docs/spec/packed-moves.md, "Move times"): a byte naming the format,
//! then for each move `0` when its time is unknown, else one more than the
//! zigzag-encoded milliseconds since the last known time (since the epoch
//! for the first), as unsigned LEB128. A correspondence move takes four
//! bytes or five; a game whose moves have no times stores none.

/// The first byte of packed times: the format they are written in.
const FORMAT: u8 = 1;

/// The times of moves, in milliseconds since the epoch, packed; `None`
/// when none is known.
pub fn pack(times: &[Option<i64>]) -> Option<Vec<u8>> {
    if times.iter().all(Option::is_none) {
        return None;
    }
    let mut bytes = Vec::with_capacity(1 + 5 * times.len());
    bytes.push(FORMAT);
    let mut last = 0;
    for time in times {
        push(&mut bytes, &mut last, *time);
    }
    Some(bytes)
}

/// Appends the time of one more move to `packed` (`None`: a game whose
/// moves had no times) of a game of `plies` moves before it.
pub fn append(packed: &mut Option<Vec<u8>>, plies: usize, time: Option<i64>) {
    let bytes = match packed {
        Some(bytes) => bytes,
        None if time.is_none() => return,
        None => {
            let mut bytes = vec![FORMAT];
            bytes.extend(std::iter::repeat_n(0, plies));
            packed.insert(bytes)
        }
    };
    let mut last = unpack(bytes)
        .into_iter()
        .flatten()
        .last()
        .unwrap_or_default();
    push(bytes, &mut last, time);
}

fn push(bytes: &mut Vec<u8>, last: &mut i64, time: Option<i64>) {
    let Some(time) = time else {
        bytes.push(0);
        return;
    };
    let delta = time.wrapping_sub(*last);
    let zigzag = ((delta << 1) ^ (delta >> 63)) as u64;
    let mut n = u128::from(zigzag) + 1;
    while n >= 0x80 {
        bytes.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    bytes.push(n as u8);
    *last = time;
}

/// The times packed in `bytes`, a move each; unreadable bytes read as
/// unknown times from where they fail (times are what a game shows, never
/// what it is).
pub fn unpack(bytes: &[u8]) -> Vec<Option<i64>> {
    let Some((&FORMAT, mut rest)) = bytes.split_first() else {
        return Vec::new();
    };
    let mut times = Vec::with_capacity(rest.len() / 4);
    let mut last = 0i64;
    while !rest.is_empty() {
        let mut n: u128 = 0;
        let mut read = 0;
        for (i, &byte) in rest.iter().enumerate().take(10) {
            n |= u128::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                read = i + 1;
                break;
            }
        }
        if read == 0 {
            break;
        }
        rest = &rest[read..];
        times.push(n.checked_sub(1).map(|zigzag| {
            let zigzag = zigzag as u64;
            let delta = (zigzag >> 1) as i64 ^ -((zigzag & 1) as i64);
            last = last.wrapping_add(delta);
            last
        }));
    }
    times
}

/// The time of each of `plies` moves from packed times, unknown where none
/// is stored.
pub fn of_moves(packed: Option<&[u8]>, plies: usize) -> Vec<Option<i64>> {
    let mut times = packed.map(unpack).unwrap_or_default();
    times.resize(plies, None);
    times
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip_known_or_not_in_any_order() {
        let day = 86_400_000;
        let start = 1_764_000_000_000;
        let times = [
            Some(start),
            None,
            Some(start + day),
            Some(start + day - 5),
            Some(0),
            Some(i64::MAX),
            Some(i64::MIN),
            None,
        ];
        let bytes = pack(&times).unwrap();
        assert_eq!(unpack(&bytes), times);
        assert_eq!(pack(&[None, None]), None, "no time known: nothing stored");
        // A day between moves takes four bytes.
        let two = pack(&[Some(start), Some(start + day)]).unwrap();
        assert_eq!(two.len() - pack(&[Some(start)]).unwrap().len(), 4);
    }

    #[test]
    fn appending_a_move_packs_as_packing_them_all() {
        let mut packed = None;
        let mut times = Vec::new();
        for (plies, time) in [None, None, Some(1000), None, Some(900), Some(5000)]
            .into_iter()
            .enumerate()
        {
            append(&mut packed, plies, time);
            times.push(time);
            assert_eq!(packed, pack(&times), "after {times:?}");
        }
        assert_eq!(of_moves(packed.as_deref(), 8).len(), 8);
        assert_eq!(of_moves(None, 3), vec![None; 3]);
    }

    #[test]
    fn cut_or_foreign_bytes_read_as_unknown_times() {
        assert_eq!(unpack(&[]), Vec::<Option<i64>>::new());
        assert_eq!(unpack(&[9, 1]), Vec::<Option<i64>>::new());
        assert_eq!(unpack(&[FORMAT, 3, 0x80]), vec![Some(1)]);
        assert_eq!(unpack(&[FORMAT, 2]), vec![Some(-1)]);
    }
}
