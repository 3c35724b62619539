/// The local OMDb stand-in: namespace placeholder until the server lands.
public enum OMDbStandIn {}
