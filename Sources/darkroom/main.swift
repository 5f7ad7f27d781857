import DarkroomCLI

DarkroomCommand.main()
