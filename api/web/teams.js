// Teams: the list with the player's own and a form to make one, and a
// team's page: its members (captains first), joining and leaving, a
// captain's invitations and new captains, and its matches. A match itself
// is a tournament's page (tournaments.js), organised from there.

import { act, call, session } from "./api.js";
import { announce, h, show } from "./dom.js";
import { playerName } from "./players.js";
import { describe, words } from "./words.js";

/** "Home Rooks – Away Bishops, 4 boards, started". */
export function matchWords(t) {
  return `${t.home_team?.name ?? "?"} – ${t.away_team?.name ?? "?"}, ${t.capacity} ${t.capacity === 1 ? "board" : "boards"}, ${words(t.status)}`;
}

function teamList(teams, empty) {
  return teams.length
    ? h(
        "ul",
        { class: "tournaments" },
        teams.map((t) =>
          h(
            "li",
            {},
            h("a", { href: `#/teams/${t.id}` }, t.name),
            h(
              "span",
              { class: "about" },
              `${t.member_count} ${t.member_count === 1 ? "member" : "members"}, ${t.open ? "open to all" : "by invitation"}`,
            ),
          ),
        ),
      )
    : h("p", {}, empty);
}

/** The newest teams, the player's own, and the form to make one. */
export async function teamsPage(signal) {
  const me = session.get()?.username;
  const [{ body: all }, { body: mine }] = await Promise.all([
    call("GET", "/teams?limit=100", { signal }),
    call("GET", `/teams?member=${encodeURIComponent(me)}`, { signal }),
  ]);
  show(
    h(
      "section",
      { "aria-labelledby": "my-teams-title" },
      h("h2", { id: "my-teams-title" }, "Your teams"),
      teamList(mine.teams, "You are in no team yet: join one below, or make one."),
    ),
    h(
      "section",
      { "aria-labelledby": "teams-title" },
      h("h2", { id: "teams-title" }, "Teams"),
      teamList(all.teams, "No teams yet."),
    ),
    makeTeamForm(),
  );
}

function makeTeamForm() {
  const name = h("input", { name: "name", required: true, minlength: 2, maxlength: 40 });
  const description = h("textarea", { name: "description", maxlength: 1000, rows: 3 });
  const open = h("input", { name: "open", type: "checkbox", checked: true });
  const error = h("p", { class: "error", role: "alert" });
  return h(
    "form",
    {
      "aria-label": "Make a team",
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          const { body } = await act("/teams", { name: name.value, description: description.value, open: open.checked });
          location.hash = `#/teams/${body.id}`;
        } catch (e) {
          error.textContent = describe(e);
        }
      },
    },
    h("h2", {}, "Make a team"),
    h("label", {}, "Name", name),
    h("label", {}, "About the team", description),
    h("label", { class: "setting" }, open, "Anyone may join (else those you invite)"),
    h("button", { type: "submit" }, "Make the team"),
    error,
  );
}

/** A team: members, joining and leaving, a captain's tools, its matches. */
export async function teamPage(id, signal) {
  const { body: team } = await call("GET", `/teams/${id}`, { signal });
  const me = session.get()?.username;
  const mine = team.members.find((m) => m.player.username === me);
  const captain = mine?.captain === true;
  const refresh = () => teamPage(id, signal);
  const run = async (label, path, body) => {
    try {
      await act(path, body);
      announce(`${label}: done.`);
      await refresh();
    } catch (error) {
      announce(describe(error));
    }
  };
  const button = (label, path, body) => h("button", { type: "button", onclick: () => run(label, path, body) }, label);
  const actions = [];
  if (!mine) actions.push(button("Join", `/teams/${id}/join`));
  else actions.push(button("Leave", `/teams/${id}/leave`));
  if (captain) actions.push(h("a", { href: `#/tournaments?organise=team_match&home=${id}` }, "Organise a match"));
  const members = h(
    "ul",
    { class: "members" },
    team.members.map((m) =>
      h(
        "li",
        {},
        playerName(m.player),
        m.captain ? h("span", { class: "captain" }, " (captain)") : "",
        captain && !m.captain
          ? [" ", button("Make captain", `/teams/${id}/captains`, { username: m.player.username })]
          : "",
      ),
    ),
  );
  const sections = [
    h(
      "section",
      { "aria-labelledby": "team-title", class: "team" },
      h("h2", { id: "team-title" }, team.name),
      team.description ? h("p", { class: "description" }, team.description) : "",
      h(
        "p",
        { class: "about" },
        `${team.member_count} ${team.member_count === 1 ? "member" : "members"}, ${team.open ? "open to all" : "by invitation"}.`,
      ),
      h("p", { class: "actions" }, ...actions.flatMap((a) => [a, " "])),
      h("h3", {}, "Members"),
      members,
    ),
  ];
  if (captain) sections.push(inviteForm(id, run));
  sections.push(
    h(
      "section",
      { "aria-labelledby": "matches-title" },
      h("h3", { id: "matches-title" }, "Matches"),
      team.matches.length
        ? h(
            "ul",
            { class: "tournaments" },
            team.matches.map((t) => h("li", {}, h("a", { href: `#/tournaments/${t.id}` }, t.name), h("span", { class: "about" }, matchWords(t)))),
          )
        : h("p", {}, "No matches yet."),
    ),
  );
  show(...sections);
}

function inviteForm(id, run) {
  const username = h("input", { name: "username", required: true, autocomplete: "off" });
  return h(
    "section",
    { "aria-labelledby": "invite-title" },
    h("h3", { id: "invite-title" }, "Invite a player"),
    h(
      "form",
      {
        "aria-label": "Invite a player",
        class: "invite",
        onsubmit: (event) => {
          event.preventDefault();
          run(`${username.value} invited`, `/teams/${id}/invites`, { username: username.value });
        },
      },
      h("label", {}, "Username", username),
      h("button", { type: "submit" }, "Invite"),
    ),
  );
}
