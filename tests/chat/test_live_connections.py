"""The process's register of open chat connections, per conversation."""

import gc

from chat.shutdown import LiveConnections


class Connection:
    """Stands for a consumer: the register only keeps it and reads back what it set."""


def test_a_connection_alone_in_its_conversation_is_alone():
    live, tab = LiveConnections(), Connection()
    live.register(tab)
    live.entered(tab, "c1")
    assert live.alone_in(tab, "c1")


def test_a_second_tab_in_the_conversation_means_not_alone_until_it_leaves():
    live, first, second = LiveConnections(), Connection(), Connection()
    for tab in (first, second):
        live.register(tab)
        live.entered(tab, "c1")
    assert not live.alone_in(first, "c1") and not live.alone_in(second, "c1")
    live.unregister(second)
    assert live.alone_in(first, "c1")


def test_tabs_of_other_conversations_do_not_count():
    live, mine, other = LiveConnections(), Connection(), Connection()
    live.entered(mine, "c1")
    live.entered(other, "c2")
    assert live.alone_in(mine, "c1")


def test_entering_another_conversation_leaves_the_first():
    live, first, moving = LiveConnections(), Connection(), Connection()
    live.entered(first, "c1")
    live.entered(moving, "c1")
    live.entered(moving, "c2")
    assert live.alone_in(first, "c1")
    assert not live.alone_in(first, "c2")


def test_a_connection_that_is_gone_without_unregistering_does_not_count():
    live, tab = LiveConnections(), Connection()
    live.entered(tab, "c1")
    gone = Connection()
    live.entered(gone, "c1")
    del gone
    gc.collect()
    assert live.alone_in(tab, "c1")


def test_the_last_tab_leaving_forgets_the_conversation():
    live, tab = LiveConnections(), Connection()
    live.register(tab)
    live.entered(tab, "c1")
    live.unregister(tab)
    assert live._in_conversation == {} and not live.live
