import DarkroomCLI

await DarkroomCommand.main()
