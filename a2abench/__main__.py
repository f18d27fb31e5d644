from a2abench.cli import main

main()
