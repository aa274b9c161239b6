"""What a player's lines mean: moves and commands, run in order until one fails.

`catalogue` is the table of every command by topic (and `help`); `lines` runs a mail's
lines against a game or against the writer's account; `game`, `account`, `new`,
`tournaments`, `seeks`, `web` and `annotate` hold the handlers; `speaker` says who wrote.
`server_moves` is how the scheduler's timeouts and bots' moves reach the held lines they
free. Mail in (pbem.intake), the pages (pbem.web) and the scheduler use the names below;
what a writer and the others are told is the policy's (pbem.policy).
"""

from pbem.commands.catalogue import COMMANDS, help_text
from pbem.commands.lines import resume_held, run_game_mail, run_global_mail
from pbem.commands.speaker import Refused, Speaker, command_lines

__all__ = ["COMMANDS", "help_text", "resume_held", "run_game_mail", "run_global_mail",
           "Refused", "Speaker", "command_lines"]
