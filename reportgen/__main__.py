from reportgen.cli import run

run()
