from feedback_intelligence.cli.main import main

main()
