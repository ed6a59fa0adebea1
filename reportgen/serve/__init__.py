"""The live preview behind `reportgen serve`: build, watch, serve, reload."""
