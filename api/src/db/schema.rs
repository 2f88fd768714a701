//! The tables, the same in both dialects (see `migrations/`).

diesel::table! {
    settings (key) {
        key -> Text,
        value -> Text,
    }
}

diesel::table! {
    accounts (id) {
        id -> Text,
        username -> Text,
        username_key -> Text,
        password_hash -> Text,
        created_at -> BigInt,
        vacation_balance -> BigInt,
        vacation_next_grant_at -> BigInt,
        vacation_since -> Nullable<BigInt>,
        last_active_at -> Nullable<BigInt>,
        deleted_at -> Nullable<BigInt>,
        bot -> Bool,
        online_until -> Nullable<BigInt>,
    }
}

diesel::table! {
    tokens (id) {
        id -> Text,
        account_id -> Text,
        kind -> Text,
        name -> Nullable<Text>,
        scopes -> Text,
        created_at -> BigInt,
        expires_at -> BigInt,
        revoked_at -> Nullable<BigInt>,
        family -> Nullable<Text>,
    }
}

diesel::table! {
    refresh_tokens (id) {
        id -> Text,
        account_id -> Text,
        family -> Text,
        created_at -> BigInt,
        expires_at -> BigInt,
        used_at -> Nullable<BigInt>,
        revoked_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    games (id) {
        id -> Text,
        rules -> Text,
        start_kind -> Text,
        start_number -> Nullable<Integer>,
        initial_fen -> Text,
        initial_key -> BigInt,
        current_fen -> Text,
        ply -> Integer,
        status -> Text,
        result -> Nullable<Text>,
        termination -> Nullable<Text>,
        white_id -> Nullable<Text>,
        black_id -> Nullable<Text>,
        white_name -> Text,
        black_name -> Text,
        to_move_id -> Nullable<Text>,
        days_per_move -> Integer,
        deadline_at -> Nullable<BigInt>,
        created_at -> BigInt,
        updated_at -> BigInt,
        imported_by -> Nullable<Text>,
        import_key -> Nullable<Text>,
        source_tags -> Nullable<Text>,
        turn_started_at -> BigInt,
        draw_offer_by -> Nullable<Text>,
        warned_ply -> Nullable<Integer>,
        eco -> Nullable<Text>,
        opening -> Nullable<Text>,
        played_on -> Nullable<Text>,
        rated -> Bool,
        clock -> Nullable<Text>,
        waiting_bank -> Nullable<BigInt>,
        holds_conditionals -> Bool,
        tagged_eco -> Nullable<Text>,
        tagged_opening -> Nullable<Text>,
        white_surname -> Nullable<Text>,
        white_first -> Nullable<Text>,
        black_surname -> Nullable<Text>,
        black_first -> Nullable<Text>,
        moves -> Binary,
        move_times -> Nullable<Binary>,
        recent_keys -> Nullable<Binary>,
        vacation_allowed -> Bool,
    }
}

diesel::table! {
    conditionals (game_id, account_id) {
        game_id -> Text,
        account_id -> Text,
        lines -> Text,
        updated_at -> BigInt,
    }
}

diesel::table! {
    game_positions (position_key, game_id, next) {
        position_key -> BigInt,
        game_id -> Text,
        next -> SmallInt,
        ply -> Integer,
    }
}

diesel::table! {
    explorer_counts (scope, rules, position_key, next) {
        scope -> Text,
        rules -> Text,
        position_key -> BigInt,
        next -> SmallInt,
        games -> BigInt,
        white -> BigInt,
        draws -> BigInt,
        black -> BigInt,
    }
}

diesel::table! {
    /// No key in the database: rows are appended and read all at once.
    staged_counts (scope, rules, position_key, next) {
        scope -> Text,
        rules -> Text,
        position_key -> BigInt,
        next -> SmallInt,
        games -> BigInt,
        white -> BigInt,
        draws -> BigInt,
        black -> BigInt,
    }
}

diesel::table! {
    /// No key in the database: rows are appended and read all at once.
    staged_positions (position_key, game_id, next) {
        position_key -> BigInt,
        game_id -> Text,
        next -> SmallInt,
        ply -> Integer,
    }
}

diesel::table! {
    challenges (id) {
        id -> Text,
        challenger_id -> Text,
        opponent_id -> Nullable<Text>,
        rules -> Text,
        start_kind -> Text,
        start_number -> Nullable<Integer>,
        start_fen -> Nullable<Text>,
        days_per_move -> Integer,
        color -> Text,
        status -> Text,
        game_id -> Nullable<Text>,
        created_at -> BigInt,
        updated_at -> BigInt,
        rated -> Bool,
        rating_min -> Nullable<Integer>,
        rating_max -> Nullable<Integer>,
        clock -> Nullable<Text>,
    }
}

diesel::table! {
    events (id) {
        id -> BigInt,
        account_id -> Text,
        kind -> Text,
        game_id -> Nullable<Text>,
        data -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    webhooks (id) {
        id -> Text,
        account_id -> Text,
        url -> Text,
        secret -> Text,
        kinds -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    deliveries (id) {
        id -> Text,
        webhook_id -> Text,
        event_id -> BigInt,
        status -> Text,
        attempts -> Integer,
        next_attempt_at -> BigInt,
        last_status -> Nullable<Integer>,
        last_error -> Nullable<Text>,
        created_at -> BigInt,
        delivered_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    idempotency_keys (scope, key) {
        scope -> Text,
        key -> Text,
        request_hash -> Text,
        status -> Nullable<Integer>,
        content_type -> Nullable<Text>,
        body -> Nullable<Binary>,
        created_at -> BigInt,
        headers -> Nullable<Text>,
    }
}

diesel::table! {
    collections (id) {
        id -> Text,
        owner_id -> Text,
        name -> Text,
        visibility -> Text,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    collection_games (collection_id, game_id) {
        collection_id -> Text,
        game_id -> Text,
        ord -> BigInt,
    }
}

diesel::table! {
    game_notes (game_id) {
        game_id -> Text,
        notes -> Text,
    }
}

diesel::table! {
    annotations (game_id, ply, author_id) {
        game_id -> Text,
        ply -> Integer,
        author_id -> Text,
        comment -> Nullable<Text>,
        nags -> Text,
        updated_at -> BigInt,
    }
}

diesel::table! {
    ratings (account_id, rules, start) {
        account_id -> Text,
        rules -> Text,
        start -> Text,
        rating -> Double,
        deviation -> Double,
        volatility -> Double,
        games -> Integer,
        rated_at -> BigInt,
        established_until -> Nullable<BigInt>,
    }
}

diesel::table! {
    game_ratings (game_id, color) {
        game_id -> Text,
        color -> Text,
        account_id -> Text,
        rules -> Text,
        start -> Text,
        rating -> Double,
        deviation -> Double,
        rating_after -> Nullable<Double>,
        deviation_after -> Nullable<Double>,
        rating_change -> Nullable<Double>,
        rated_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    tournaments (id) {
        id -> Text,
        organiser_id -> Text,
        name -> Text,
        rules -> Text,
        start_kind -> Text,
        start_number -> Nullable<Integer>,
        start_fen -> Nullable<Text>,
        start_per_round -> Bool,
        days_per_move -> Integer,
        clock -> Nullable<Text>,
        rated -> Bool,
        double_round -> Bool,
        capacity -> Integer,
        rating_min -> Nullable<Integer>,
        rating_max -> Nullable<Integer>,
        signup_deadline -> BigInt,
        status -> Text,
        created_at -> BigInt,
        started_at -> Nullable<BigInt>,
        finished_at -> Nullable<BigInt>,
        format -> Text,
        rounds -> Nullable<Integer>,
        round -> Integer,
        tiebreaks -> Nullable<Text>,
        round_days -> Nullable<Integer>,
        adjudication -> Nullable<Text>,
        round_deadline_at -> Nullable<BigInt>,
        vacation_allowed -> Bool,
        start_when_full -> Bool,
        home_team_id -> Nullable<Text>,
        away_team_id -> Nullable<Text>,
        accepted_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    tournament_byes (tournament_id, account_id, round) {
        tournament_id -> Text,
        account_id -> Text,
        round -> Integer,
        kind -> Text,
    }
}

diesel::table! {
    tournament_pairings (tournament_id, round, board) {
        tournament_id -> Text,
        round -> Integer,
        board -> Integer,
        white_id -> Text,
        black_id -> Text,
        start_number -> Nullable<Integer>,
    }
}

diesel::table! {
    tournament_players (tournament_id, account_id) {
        tournament_id -> Text,
        account_id -> Text,
        joined_at -> BigInt,
        seat -> Nullable<Integer>,
        withdrawn_at -> Nullable<BigInt>,
        finished_when_withdrawn -> Nullable<Integer>,
        team_id -> Nullable<Text>,
    }
}

diesel::table! {
    teams (id) {
        id -> Text,
        name -> Text,
        name_key -> Text,
        description -> Text,
        open -> Bool,
        created_by -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    team_members (team_id, account_id) {
        team_id -> Text,
        account_id -> Text,
        captain -> Bool,
        joined_at -> BigInt,
    }
}

diesel::table! {
    team_invites (team_id, account_id) {
        team_id -> Text,
        account_id -> Text,
        invited_by -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    tournament_games (game_id) {
        game_id -> Text,
        tournament_id -> Text,
        round -> Integer,
        board -> Integer,
    }
}

diesel::table! {
    messages (id) {
        id -> BigInt,
        game_id -> Text,
        author_id -> Text,
        ply -> Integer,
        body -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    mutes (account_id, muted_id) {
        account_id -> Text,
        muted_id -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    account_emails (account_id) {
        account_id -> Text,
        address -> Text,
        verified_at -> Nullable<BigInt>,
        token_digest -> Nullable<Text>,
        token_expires_at -> Nullable<BigInt>,
        updated_at -> BigInt,
    }
}

diesel::table! {
    mail_outbox (id) {
        id -> BigInt,
        account_id -> Text,
        to_address -> Text,
        subject -> Text,
        text_body -> Text,
        html_body -> Text,
        created_at -> BigInt,
        status -> Text,
        attempts -> Integer,
        next_attempt_at -> BigInt,
        sent_at -> Nullable<BigInt>,
        last_error -> Nullable<Text>,
        kind -> Text,
        event_id -> Nullable<BigInt>,
    }
}

diesel::table! {
    notification_settings (account_id) {
        account_id -> Text,
        email_events -> Text,
        email_digest -> Bool,
        digest_hour -> Integer,
        time_zone -> Text,
        next_digest_at -> Nullable<BigInt>,
        digest_since -> BigInt,
        updated_at -> BigInt,
        push_events -> Nullable<Text>,
        push_subscriptions -> Integer,
    }
}

diesel::table! {
    push_subscriptions (id) {
        id -> Text,
        account_id -> Text,
        endpoint -> Text,
        p256dh -> Text,
        auth -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    push_outbox (id) {
        id -> BigInt,
        subscription_id -> Text,
        event_id -> BigInt,
        created_at -> BigInt,
        status -> Text,
        attempts -> Integer,
        next_attempt_at -> BigInt,
        sent_at -> Nullable<BigInt>,
        last_error -> Nullable<Text>,
    }
}

diesel::table! {
    password_resets (token_digest) {
        token_digest -> Text,
        account_id -> Text,
        expires_at -> BigInt,
        used_at -> Nullable<BigInt>,
        created_at -> BigInt,
    }
}

diesel::table! {
    account_deletions (account_id) {
        account_id -> Text,
        requested_at -> BigInt,
    }
}

diesel::joinable!(annotations -> accounts (author_id));
diesel::joinable!(messages -> accounts (author_id));
diesel::joinable!(tournament_players -> accounts (account_id));
diesel::joinable!(tournament_players -> tournaments (tournament_id));
diesel::joinable!(tournament_byes -> tournaments (tournament_id));
diesel::joinable!(tournament_pairings -> tournaments (tournament_id));
diesel::joinable!(team_members -> teams (team_id));
diesel::joinable!(team_members -> accounts (account_id));
diesel::joinable!(tournament_games -> games (game_id));
diesel::joinable!(ratings -> accounts (account_id));
diesel::joinable!(collection_games -> games (game_id));
diesel::joinable!(collection_games -> collections (collection_id));

diesel::allow_tables_to_appear_in_same_query!(
    tournaments,
    tournament_byes,
    tournament_pairings,
    tournament_players,
    tournament_games,
    teams,
    team_members,
    team_invites,
    ratings,
    game_ratings,
    annotations,
    game_notes,
    collections,
    collection_games,
    idempotency_keys,
    events,
    webhooks,
    deliveries,
    accounts,
    tokens,
    refresh_tokens,
    games,
    game_positions,
    explorer_counts,
    staged_counts,
    staged_positions,
    challenges,
    settings,
    conditionals,
    messages,
    mutes,
    account_emails,
    mail_outbox,
    notification_settings,
    password_resets,
    push_subscriptions,
    push_outbox,
    account_deletions
);
