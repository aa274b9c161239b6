"""The written language of pbem, pure text: move grammars and the game-record format."""
