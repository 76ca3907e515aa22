"""A small game that lives only in the tests: guess the number.

It shows that a game is one package: its engine, parser, ``games.yaml`` model,
adapter and texts are all here, registered with one line
(:func:`pbp.games.core.registry.register`), and pbp runs it by mail through the real
service and CLI with no change anywhere else.

Rules (ids cited as ``# rule G1``):

- G1. Each game has a secret whole number from 1 to ``high`` (config, default 10),
  drawn from the game's seed.
- G2. Any player may ``GUESS N`` at any time. A wrong guess is public (who guessed
  what); whether the secret is higher or lower goes to the guesser alone.
- G3. The first right guess wins and ends the game; the final post reveals the secret.
- G4. A guess outside 1..high is refused with the range.
"""
