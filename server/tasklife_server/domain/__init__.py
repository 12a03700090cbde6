"""The pure domain: states, actions, the one transition table, ids and domain errors. No I/O."""
