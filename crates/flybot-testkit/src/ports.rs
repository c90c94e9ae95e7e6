//! A free loopback port for a server the kit runs as another process
//! (Synapse, the model server), which binds it itself: the port is free
//! when this answers, not promised, so such a server checks that it
//! bound the port itself.

/// A loopback port no socket holds at the moment of asking.
pub(crate) fn free_loopback_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}
