import ArgumentParser
import Foundation
import ReservationCore
import ResvReference

struct RedoCommand: TakeBackCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo",
        abstract: "Take back the last undo.",
        discussion: """
            Takes back your newest undo not yet redone, as one step, while you changed nothing \
            since: every reservation the undo changed gets back what it had before it (a booking \
            the undo cancelled is active again), each as a new change recorded in the history \
            ('resv log', as redone). Run it again to take back the undo before, as long as only \
            undos and redos came after it; 'resv undo' after a redo takes the command back anew. \
            A change that gives people back to a day is checked against its capacity, as a new \
            booking is. Refused, changing nothing: when there is no undo to take back (none since \
            your last change: any other command in between ends what can be redone), when a day \
            has no room, when one of its reservations was changed since the undo, or when it \
            would make a reservation active again on a date that has passed (exit 1). On a \
            server, your undos only.

            On a terminal it first shows the undo it would take back (each change, as 'resv log' \
            words it) and asks; anything but y or yes redoes nothing (exit 0). --yes skips the \
            question; with stdin not a terminal (a script, a pipe) it never asks.

            Examples:
              resv undo --yes && resv redo --yes
              resv redo --yes --json | jq -r .redid
            """)

    static let redo = true
    @OptionGroup var arguments: TakeBackArguments
}
