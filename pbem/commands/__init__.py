"""What a player's lines mean: moves and commands, run in order until one fails.

`catalogue` is the table of every command by topic (and `help`); `lines` runs a mail's
lines against a game or against the writer's account; `game`, `account` and `new` hold
the handlers; `speaker` says who wrote. The pipeline, the CLI and the scheduler use the
names below.
"""

from pbem.commands.catalogue import COMMANDS, help_text
from pbem.commands.lines import resume_held, run_game_mail, run_global_mail
from pbem.commands.speaker import Refused, Speaker, command_lines, owner_of, player_for

__all__ = ["COMMANDS", "help_text", "resume_held", "run_game_mail", "run_global_mail",
           "Refused", "Speaker", "command_lines", "owner_of", "player_for"]
