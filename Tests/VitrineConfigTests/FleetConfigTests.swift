import Testing
@testable import VitrineConfig

@Suite struct FleetConfigTests {
    @Test func theDeviceIsNamedOrTheHost() throws {
        #expect(try parse(ConfigurationTests.everyKeyChanged).fleet.deviceName == "lobby-1")
        let host = Configuration.default.fleet.deviceName
        #expect(!host.isEmpty && Configuration.Fleet.isTopicName(host) || host == "vitrine", "\(host)")
        #expect(Configuration.restartKeys.contains("fleet.groups"))
    }

    @Test func mistakesAreNamed() throws {
        let wildcard = try #require(failure("[fleet]\ngroups = [\"lobby/#\"]"))
        #expect(wildcard.description.contains("fleet.groups") && wildcard.description.contains("group names"), "\(wildcard)")
        let lonely = try #require(failure("[fleet]\nca_file = \"/ca.crt\"\ncert_file = \"/c.crt\""))
        #expect(lonely.description.contains("cert_file and key_file go together"), "\(lonely)")
        let plain = try #require(failure("[fleet]\ncert_file = \"/c.crt\"\nkey_file = \"/c.key\""))
        #expect(plain.description.contains("set ca_file"), "\(plain)")
        #expect(failure("[fleet]\nport = 0") != nil)
    }

    @Test func thePasswordComesFromOnePlace() throws {
        #expect(try parse("[fleet]\nusername = \"a\"\npassword = \"secret\"").fleet.password == "secret")
        #expect(try parse("[fleet]\npassword_file = \"/etc/vitrine/mqtt.pass\"").fleet.passwordFile == "/etc/vitrine/mqtt.pass")
        let both = try #require(failure("[fleet]\npassword = \"secret\"\npassword_file = \"/etc/vitrine/mqtt.pass\""))
        #expect(both.description.contains("fleet.password_file") && both.description.contains("keep one"), "\(both)")
    }

    @Test func metricsMistakesAreNamed() throws {
        let name = try #require(failure("[metrics]\naddress = \"localhost\""))
        #expect(name.description.contains("metrics.address") && name.description.contains("IPv4 or IPv6 address"), "\(name)")
        let nowhere = try #require(failure("[metrics]\nenabled = true\nport = 0"))
        #expect(nowhere.description.contains("set socket"), "\(nowhere)")
        #expect(try parse("[metrics]\nenabled = true\nport = 0\nsocket = \"/run/m.sock\"").metrics.socket == "/run/m.sock")
        #expect(failure("[metrics]\nsocket = \"relative.sock\"") != nil)
        #expect(failure("[metrics]\nconnections = 0") != nil)
        #expect(Configuration.restartKeys.contains("metrics.port"))
    }
}
