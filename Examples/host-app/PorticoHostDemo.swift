@main struct HostDemo { static func main() {} }
